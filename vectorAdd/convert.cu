// dtype conversion between device views of one shape (out= of another dtype,
// astype, and the casts the host layer needs).
#include <cstdint>

#include "elementwise_kernels.cuh"
#include "layout.cuh"
#include "memory.cuh"
#include "ops.cuh"

namespace va {
namespace {

template <typename Tout>
__global__ void __launch_bounds__(kElementwiseThreads)
convert_strided(const char *src, va_dtype src_dtype, char *dst, int64_t n, Walk walk) {
    follow_previous_grid();
    const int64_t nthreads = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += nthreads) {
        int64_t index = i, od = 0, os = 0;
        for (int d = walk.ndim - 1; d >= 0; --d) {
            const int64_t extent = walk.shape[d];
            const int64_t k = index % extent;
            index /= extent;
            od += k * walk.strides[0][d];
            os += k * walk.strides[1][d];
        }
        *reinterpret_cast<StoredT<Tout> *>(dst + od) = to_stored<Tout>(load_as<Tout>(src + os, src_dtype));
    }
}

}  // namespace

va_status convert_on_stream(int device, cudaStream_t stream, const va_array *src,
                            const va_array *dst, int64_t n) {
    const va_array *views[2] = {dst, src};
    Walk walk;
    make_walk(views, 2, &walk);
    const size_t isz = va_dtype_size(src->dtype);
    if (src->dtype == dst->dtype &&
        (walk.ndim == 0 ||
         (walk.ndim == 1 && walk.strides[0][0] == static_cast<int64_t>(isz) &&
          walk.strides[1][0] == static_cast<int64_t>(isz)))) {
        VA_CUDA_CHECK(cudaMemcpyAsync(dst->data, src->data, static_cast<size_t>(n) * isz,
                                      cudaMemcpyDeviceToDevice, stream));
        return VA_SUCCESS;
    }
    return dispatch_dtype(dst->dtype, [&](auto tout) {
        using Tout = typename decltype(tout)::type;
        constexpr auto kernel = convert_strided<Tout>;
        VA_CUDA_CHECK(launch_kernel(device, kernel, resident_grid<kernel>(device, n, kElementwiseThreads),
                                    kElementwiseThreads, stream, static_cast<const char *>(src->data),
                                    src->dtype, static_cast<char *>(dst->data), n, walk));
        return VA_SUCCESS;
    });
}

va_status contiguous_as(int device, cudaStream_t stream, const va_array *a, int64_t n, va_dtype dtype,
                        DeviceBuffer *buffer, const void **data) {
    if (a->dtype == dtype && va_is_c_contiguous(a)) {
        *data = a->data;
        return VA_SUCCESS;
    }
    const int64_t size = static_cast<int64_t>(va_dtype_size(dtype));
    if (n > (INT64_MAX - 1) / size) VA_FAIL(VA_ERROR_OUT_OF_MEMORY);  // a broadcast view of 2**62 elements
    VA_CHECK(buffer->allocate(static_cast<size_t>(n * size + 1)));
    va_array packed;
    axis_last_view(a, a->ndim - 1, buffer->get(), dtype, &packed);
    if (n > 0) VA_CHECK(convert_on_stream(device, stream, a, &packed, n));
    *data = buffer->get();
    return VA_SUCCESS;
}

va_status contiguous_view_as(int device, cudaStream_t stream, const va_array *a, int64_t n, va_dtype dtype,
                             DeviceBuffer *buffer, va_array *view) {
    const void *data = nullptr;
    VA_CHECK(contiguous_as(device, stream, a, n, dtype, buffer, &data));
    *view = *a;
    view->data = const_cast<void *>(data);
    view->dtype = dtype;
    int64_t step = static_cast<int64_t>(va_dtype_size(dtype));
    for (int d = view->ndim - 1; d >= 0; --d) {
        view->strides[d] = step;
        step *= view->shape[d];
    }
    return VA_SUCCESS;
}

}  // namespace va

extern "C" {

va_status va_copy_convert(int device, const va_array *src, const va_array *dst) {
    int64_t ns = 0, nd = 0;
    VA_CHECK(va::validate(src, &ns));
    VA_CHECK(va::validate(dst, &nd));
    if (!va::same_shape(src, dst)) VA_FAIL(VA_ERROR_INVALID_VALUE);
    VA_ENTER_STREAM(device, scope, stream);
    if (nd == 0) return VA_SUCCESS;
    return va::convert_on_stream(device, stream, src, dst, nd);
}

}  // extern "C"
