// Device memory from the library's stream-ordered pool, and small pinned host
// slots that kernels write scalar results into.
#pragma once

#include <cstddef>

#include "runtime.cuh"

namespace va {

// Allocation and release ordered on `stream` (current `device`): its library stream,
// or a host pipeline worker's. Only the library stream's small blocks are cached on
// the host side (memory.cu).
va_status pool_alloc(int device, cudaStream_t stream, size_t nbytes, void **ptr);
void pool_free(int device, cudaStream_t stream, void *ptr, size_t nbytes);

// True when ptr is a block from va_host_alloc that is in use.
bool host_block_is_pinned(const void *ptr);

// A temporary device buffer, released on the library stream when it goes out of
// scope, so it stays valid for the work queued before that.
class DeviceBuffer {
public:
    DeviceBuffer(int device, cudaStream_t stream) : device_(device), stream_(stream) {}
    ~DeviceBuffer() { reset(); }
    DeviceBuffer(const DeviceBuffer &) = delete;
    DeviceBuffer &operator=(const DeviceBuffer &) = delete;

    va_status allocate(size_t nbytes) {
        reset();
        VA_CHECK(pool_alloc(device_, stream_, nbytes, &ptr_));
        nbytes_ = nbytes;
        return VA_SUCCESS;
    }
    void reset() {
        if (ptr_ != nullptr) pool_free(device_, stream_, ptr_, nbytes_);
        ptr_ = nullptr;
        nbytes_ = 0;
    }
    char *get() const { return static_cast<char *>(ptr_); }

private:
    int device_;
    cudaStream_t stream_;
    void *ptr_ = nullptr;
    size_t nbytes_ = 0;
};

// A few bytes of pinned, device-mapped host memory for one call's scalar result.
class PinnedSlot {
public:
    static constexpr size_t kBytes = 64;  // one cache line each: no false sharing

    PinnedSlot() = default;
    ~PinnedSlot();
    PinnedSlot(const PinnedSlot &) = delete;
    PinnedSlot &operator=(const PinnedSlot &) = delete;
    va_status acquire();
    void *get() const { return slot_; }
    void *device_address() const { return mapped_; }

private:
    void *slot_ = nullptr;
    void *mapped_ = nullptr;
};

}  // namespace va
