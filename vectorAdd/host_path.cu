// Operations on host memory computed by the GPU: inputs are uploaded, the work
// runs on the library's stream, the result comes back, and the call waits.
#include <cstdint>
#include <cstring>

#include "layout.cuh"
#include "memory.cuh"
#include "ops.cuh"

namespace va {
namespace {

bool c_contiguous(const va_array *a) {
    int64_t expected = static_cast<int64_t>(va_dtype_size(a->dtype));
    for (int d = a->ndim - 1; d >= 0; --d) {
        if (a->shape[d] != 1 && a->strides[d] != expected) return false;
        expected *= a->shape[d];
    }
    return true;
}

// Uploads the bytes a host view spans and describes the same view on the device.
va_status upload_view(cudaStream_t stream, const va_array *host, DeviceBuffer *buffer,
                      va_array *device_view) {
    int64_t lo = 0, hi = 0;
    byte_extent(host, &lo, &hi);
    VA_CHECK(buffer->allocate(static_cast<size_t>(hi - lo)));
    *device_view = *host;
    device_view->data = buffer->get() - lo;
    if (hi > lo)
        VA_CUDA_CHECK(cudaMemcpyAsync(buffer->get(), static_cast<const char *>(host->data) + lo,
                                      static_cast<size_t>(hi - lo), cudaMemcpyHostToDevice, stream));
    return VA_SUCCESS;
}

}  // namespace
}  // namespace va

extern "C" {

va_status va_binary_host(int device, va_op op, const va_array *a, const va_array *b,
                         const va_array *out) {
    int64_t n = 0;
    VA_CHECK(va::check_binary(op, a, b, out, &n));
    if (!va::c_contiguous(out)) VA_FAIL(VA_ERROR_INVALID_VALUE);
    VA_ENTER_DEVICE(device, scope);
    cudaStream_t stream = nullptr;
    VA_CHECK(va::library_stream(device, &stream));
    if (n == 0) return VA_SUCCESS;
    va::DeviceBuffer da(device, stream), db(device, stream), dout(device, stream);
    va_array va_a, va_b, va_out = *out;
    VA_CHECK(va::upload_view(stream, a, &da, &va_a));
    VA_CHECK(va::upload_view(stream, b, &db, &va_b));
    const size_t out_bytes = static_cast<size_t>(n) * va_dtype_size(out->dtype);
    VA_CHECK(dout.allocate(out_bytes));
    va_out.data = dout.get();
    VA_CHECK(va::binary_on_stream(device, stream, op, &va_a, &va_b, &va_out, n));
    VA_CUDA_CHECK(cudaMemcpyAsync(out->data, dout.get(), out_bytes, cudaMemcpyDeviceToHost, stream));
    VA_CUDA_CHECK(cudaStreamSynchronize(stream));
    return VA_SUCCESS;
}

va_status va_sum_host(int device, const va_array *a, void *result) {
    int64_t n = 0;
    VA_CHECK(va::validate(a, &n));
    if (result == nullptr) VA_FAIL(VA_ERROR_INVALID_VALUE);
    VA_ENTER_DEVICE(device, scope);
    cudaStream_t stream = nullptr;
    VA_CHECK(va::library_stream(device, &stream));
    va::DeviceBuffer da(device, stream);
    va_array va_a;
    VA_CHECK(va::upload_view(stream, a, &da, &va_a));
    return va::sum_on_stream(device, stream, &va_a, n, result);
}

}  // extern "C"
