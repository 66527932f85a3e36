// The pinned copy of the last full reduction's result (scalar_mirror.cuh).
#include <atomic>
#include <cstdint>
#include <cstring>

#include "memory.cuh"
#include "runtime.cuh"
#include "scalar_mirror.cuh"

namespace va {
namespace {

struct Mirror {
    void *host = nullptr;    // the slot (acquired once, kept until shutdown)
    void *device = nullptr;  // its mapped address, for kernels
    int owner_device = -1;
    const void *address = nullptr;  // the device bytes it holds a copy of
    size_t nbytes = 0;
    uint64_t epoch = 0;      // the write epoch at which the copy was made
};

std::mutex g_mirror_mutex;
Mirror g_mirror;
std::atomic<int64_t> g_served{0};  // reads served, for the tests

}  // namespace

MirrorWrite::MirrorWrite() : lock_(g_mirror_mutex) {}

MirrorWrite::~MirrorWrite() = default;

va_status MirrorWrite::slot(void **device_address) {
    move_write_epoch();
    g_mirror.address = nullptr;
    if (g_mirror.host == nullptr) {
        // Never returned to the free list: shutdown_memory frees the pages.
        auto *slot = new PinnedSlot();
        const va_status st = slot->acquire();
        if (st != VA_SUCCESS) {
            delete slot;
            return st;
        }
        g_mirror.host = slot->get();
        g_mirror.device = slot->device_address();
    }
    *device_address = g_mirror.device;
    return VA_SUCCESS;
}

void MirrorWrite::publish(int device, const void *address, size_t nbytes) {
    if (nbytes > PinnedSlot::kBytes) return;
    g_mirror.owner_device = device;
    g_mirror.address = address;
    g_mirror.nbytes = nbytes;
    g_mirror.epoch = write_epoch();
}

va_status mirror_read(int device, cudaStream_t stream, void *dst, const void *src, size_t nbytes, bool *served) {
    *served = false;
    void *host = nullptr;
    uint64_t epoch = 0;
    {
        std::lock_guard<std::mutex> lock(g_mirror_mutex);
        epoch = write_epoch();
        if (g_mirror.address == nullptr || g_mirror.address != src || g_mirror.owner_device != device ||
            nbytes > g_mirror.nbytes || g_mirror.epoch != epoch)
            return VA_SUCCESS;
        host = g_mirror.host;
    }
    VA_CUDA_CHECK(cudaStreamSynchronize(stream));
    std::memcpy(dst, host, nbytes);
    // A reduction that rewrote the slot meanwhile moved the epoch first.
    *served = write_epoch() == epoch;
    if (*served) g_served.fetch_add(1);
    return VA_SUCCESS;
}

void shutdown_mirror() {
    std::lock_guard<std::mutex> lock(g_mirror_mutex);
    g_mirror = Mirror{};
}

}  // namespace va

extern "C" va_status va_note_address_exported(void) {
    va::move_write_epoch();
    return VA_SUCCESS;
}

extern "C" va_status va_testing_mirror_reads(int64_t *served) {
    if (served == nullptr) VA_FAIL(VA_ERROR_INVALID_VALUE);
    *served = va::g_served.load();
    return VA_SUCCESS;
}
