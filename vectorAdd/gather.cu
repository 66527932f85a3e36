// Advanced indexing on device memory: copies between a strided view and a view
// whose one "table" axis takes its byte offsets from an int64 array (integer or
// boolean index arrays, resolved to offsets by the caller).
#include <cstdint>
#include <cstring>

#include "dispatch.cuh"
#include "elementwise_kernels.cuh"
#include "grid.cuh"
#include "launch.cuh"
#include "layout.cuh"
#include "runtime.cuh"

namespace va {
namespace {

constexpr int kThreads = 256;

struct TableWalk {
    int32_t ndim;
    int32_t axis;
    int32_t table_on_dst;  // else on src
    int64_t shape[VA_MAX_NDIM];
    int64_t src_strides[VA_MAX_NDIM];
    int64_t dst_strides[VA_MAX_NDIM];
};

// One kernel per destination type, the source's read through load_as (a kernel
// per pair would be 121 of them).
template <typename Tout>
__global__ void __launch_bounds__(kThreads)
copy_through_table(const char *src, va_dtype src_dtype, char *dst, const int64_t *table, int64_t n,
                   TableWalk w) {
    follow_previous_grid();
    const int64_t nthreads = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += nthreads) {
        int64_t index = i, os = 0, od = 0;
        for (int d = w.ndim - 1; d >= 0; --d) {
            const int64_t extent = w.shape[d];
            const int64_t k = index % extent;
            index /= extent;
            if (d == w.axis) {
                const int64_t t = table[k];
                if (w.table_on_dst) {
                    od += t;
                    os += k * w.src_strides[d];
                } else {
                    os += t;
                    od += k * w.dst_strides[d];
                }
            } else {
                os += k * w.src_strides[d];
                od += k * w.dst_strides[d];
            }
        }
        *reinterpret_cast<StoredT<Tout> *>(dst + od) = to_stored<Tout>(load_as<Tout>(src + os, src_dtype));
    }
}

va_status copy_table(int device, const va_array *src, const va_array *dst, int axis,
                     const int64_t *offsets, int table_on_dst) {
    int64_t ns = 0, nd = 0;
    VA_CHECK(validate(src, &ns));
    VA_CHECK(validate(dst, &nd));
    if (!same_shape(src, dst) || axis < 0 || axis >= dst->ndim) VA_FAIL(VA_ERROR_INVALID_VALUE);
    if (nd > 0 && offsets == nullptr) VA_FAIL(VA_ERROR_INVALID_VALUE);
    VA_ENTER_STREAM(device, scope, stream);
    if (nd == 0) return VA_SUCCESS;
    TableWalk w;
    std::memset(&w, 0, sizeof(w));
    w.ndim = dst->ndim;
    w.axis = axis;
    w.table_on_dst = table_on_dst;
    for (int d = 0; d < dst->ndim; ++d) {
        w.shape[d] = dst->shape[d];
        w.src_strides[d] = src->strides[d];
        w.dst_strides[d] = dst->strides[d];
    }
    return dispatch_dtype(dst->dtype, [&](auto tout) {
        using Tout = typename decltype(tout)::type;
        constexpr auto kernel = copy_through_table<Tout>;
        VA_CUDA_CHECK(launch_kernel(device, kernel, resident_grid_for<kernel>(device, nd, kThreads),
                                    kThreads, stream, static_cast<const char *>(src->data), src->dtype,
                                    static_cast<char *>(dst->data), offsets, nd, w));
        return VA_SUCCESS;
    });
}

}  // namespace
}  // namespace va

extern "C" {

va_status va_gather(int device, const va_array *src, int axis, const int64_t *offsets,
                    const va_array *dst) {
    return va::copy_table(device, src, dst, axis, offsets, 0);
}

va_status va_scatter(int device, const va_array *src, const va_array *dst, int axis,
                     const int64_t *offsets) {
    return va::copy_table(device, src, dst, axis, offsets, 1);
}

}  // extern "C"
