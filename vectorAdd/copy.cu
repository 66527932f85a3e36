// Copies between host memory and the library's stream (vectorAdd.h). A read of
// a few bytes (a scalar) goes through pinned memory, or is served by the pinned
// copy of the last full reduction's result (scalar_mirror.cuh).
#include <cstring>

#include "memory.cuh"
#include "runtime.cuh"
#include "scalar_mirror.cuh"

extern "C" {

va_status va_copy_to_device(int device, void *dst, const void *src, size_t nbytes) {
    if ((dst == nullptr || src == nullptr) && nbytes > 0) VA_FAIL(VA_ERROR_INVALID_VALUE);
    VA_ENTER_STREAM(device, scope, stream);
    if (nbytes == 0) return VA_SUCCESS;
    VA_CUDA_CHECK(cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyHostToDevice, stream));
    return VA_SUCCESS;
}

va_status va_copy_to_host(int device, void *dst, const void *src, size_t nbytes) {
    if ((dst == nullptr || src == nullptr) && nbytes > 0) VA_FAIL(VA_ERROR_INVALID_VALUE);
    VA_ENTER_QUIET_STREAM(device, scope, stream);
    // A scalar read back (float(d), d.item(), a 0-d get()) goes through pinned
    // memory: a pageable copy of a few bytes is staged by the driver and costs
    // several microseconds more than the launch + sync it follows. The last full
    // reduction's result is there already (scalar_mirror.cuh).
    if (nbytes > 0 && nbytes <= va::PinnedSlot::kBytes) {
        bool served = false;
        VA_CHECK(va::mirror_read(device, stream, dst, src, nbytes, &served));
        if (served) return VA_SUCCESS;
        va::PinnedSlot slot;
        VA_CHECK(slot.acquire());
        VA_CUDA_CHECK(cudaMemcpyAsync(slot.get(), src, nbytes, cudaMemcpyDeviceToHost, stream));
        VA_CUDA_CHECK(cudaStreamSynchronize(stream));
        std::memcpy(dst, slot.get(), nbytes);
        return VA_SUCCESS;
    }
    if (nbytes > 0)
        VA_CUDA_CHECK(cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyDeviceToHost, stream));
    VA_CUDA_CHECK(cudaStreamSynchronize(stream));
    return VA_SUCCESS;
}

}  // extern "C"
