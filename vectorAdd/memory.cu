// The library's allocator: a stream-ordered pool per device (cudaMallocAsync on a
// pool of our own, so other libraries' pools are untouched), with a retry after
// releasing the cache when memory runs out. MYMODULE_NO_POOL=1 switches to plain
// cudaMalloc/cudaFree, for the memory checkers.
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include "memory.cuh"

namespace va {
namespace {

std::atomic<int64_t> g_bytes_in_use{0};
std::atomic<int64_t> g_live_allocations{0};

std::mutex g_pool_mutex;
cudaMemPool_t g_pools[kMaxDevices] = {};

bool pool_disabled() {
    static const bool disabled = [] {
        const char *v = std::getenv("MYMODULE_NO_POOL");
        return v != nullptr && v[0] != '\0' && std::strcmp(v, "0") != 0;
    }();
    return disabled;
}

va_status device_pool(int device, cudaMemPool_t *pool) {
    std::lock_guard<std::mutex> lock(g_pool_mutex);
    if (g_pools[device] == nullptr) {
        cudaMemPoolProps props;
        std::memset(&props, 0, sizeof(props));
        props.allocType = cudaMemAllocationTypePinned;
        props.handleTypes = cudaMemHandleTypeNone;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = device;
        cudaMemPool_t created = nullptr;
        VA_CUDA_CHECK(cudaMemPoolCreate(&created, &props));
        // Keep freed blocks cached: releasing them at every synchronisation would
        // make each call pay for cudaMalloc again.
        uint64_t keep_all = UINT64_MAX;
        VA_CUDA_CHECK(cudaMemPoolSetAttribute(created, cudaMemPoolAttrReleaseThreshold, &keep_all));
        g_pools[device] = created;
    }
    *pool = g_pools[device];
    return VA_SUCCESS;
}

cudaError_t raw_alloc(cudaMemPool_t pool, cudaStream_t stream, size_t nbytes, void **ptr) {
    if (pool_disabled()) return cudaMalloc(ptr, nbytes);
    return cudaMallocFromPoolAsync(ptr, nbytes, pool, stream);
}

}  // namespace

va_status pool_alloc(int device, cudaStream_t stream, size_t nbytes, void **ptr) {
    *ptr = nullptr;
    if (nbytes == 0) nbytes = 1;  // a valid, unique pointer for empty arrays
    cudaMemPool_t pool = nullptr;
    if (!pool_disabled()) VA_CHECK(device_pool(device, &pool));
    cudaError_t err = raw_alloc(pool, stream, nbytes, ptr);
    if (err == cudaErrorMemoryAllocation) {
        // Give every cached block back to the driver, then try once more.
        cudaGetLastError();
        cudaStreamSynchronize(stream);
        if (pool != nullptr) cudaMemPoolTrimTo(pool, 0);
        err = raw_alloc(pool, stream, nbytes, ptr);
    }
    if (err != cudaSuccess) {
        *ptr = nullptr;
        return record_cuda(err, __FILE__, __LINE__, static_cast<int64_t>(nbytes));
    }
    g_bytes_in_use += static_cast<int64_t>(nbytes);
    g_live_allocations += 1;
    return VA_SUCCESS;
}

void pool_free(int device, cudaStream_t stream, void *ptr, size_t nbytes) {
    (void)device;
    if (ptr == nullptr) return;
    if (nbytes == 0) nbytes = 1;
    if (pool_disabled())
        cudaFree(ptr);
    else
        cudaFreeAsync(ptr, stream);
    cudaGetLastError();  // a failed free (after a sticky fault) must not leak into the next call
    g_bytes_in_use -= static_cast<int64_t>(nbytes);
    g_live_allocations -= 1;
}

// ---- pinned slots: a free list of 8-byte pieces of pinned pages ----
namespace {
std::mutex g_slot_mutex;
std::vector<void *> g_free_slots;
constexpr size_t kSlotBytes = 64;       // one cache line each: no false sharing
constexpr size_t kSlotPage = 64 * 1024;
}  // namespace

va_status PinnedSlot::acquire() {
    std::lock_guard<std::mutex> lock(g_slot_mutex);
    if (g_free_slots.empty()) {
        void *page = nullptr;
        cudaError_t err = cudaHostAlloc(&page, kSlotPage, cudaHostAllocMapped | cudaHostAllocPortable);
        if (err != cudaSuccess)
            return record_cuda(err, __FILE__, __LINE__, static_cast<int64_t>(kSlotPage));
        for (size_t off = 0; off < kSlotPage; off += kSlotBytes)
            g_free_slots.push_back(static_cast<char *>(page) + off);
    }
    slot_ = g_free_slots.back();
    g_free_slots.pop_back();
    return VA_SUCCESS;
}

PinnedSlot::~PinnedSlot() {
    if (slot_ == nullptr) return;
    std::lock_guard<std::mutex> lock(g_slot_mutex);
    g_free_slots.push_back(slot_);
}

}  // namespace va

extern "C" {

va_status va_malloc(int device, size_t nbytes, void **ptr) {
    if (ptr == nullptr) VA_FAIL(VA_ERROR_INVALID_VALUE);
    *ptr = nullptr;
    VA_ENTER_DEVICE(device, scope);
    cudaStream_t stream = nullptr;
    VA_CHECK(va::library_stream(device, &stream));
    return va::pool_alloc(device, stream, nbytes, ptr);
}

va_status va_free(int device, void *ptr, size_t nbytes) {
    if (ptr == nullptr) return VA_SUCCESS;
    // After a sticky fault the memory is gone with the context; only the count moves.
    va_status st = va::usable();
    if (st == VA_ERROR_CUDA_FATAL) {
        va::g_bytes_in_use -= static_cast<int64_t>(nbytes == 0 ? 1 : nbytes);
        va::g_live_allocations -= 1;
        return st;
    }
    VA_ENTER_DEVICE(device, scope);
    cudaStream_t stream = nullptr;
    VA_CHECK(va::library_stream(device, &stream));
    va::pool_free(device, stream, ptr, nbytes);
    return VA_SUCCESS;
}

va_status va_malloc_managed(int device, size_t nbytes, void **ptr) {
    if (ptr == nullptr) VA_FAIL(VA_ERROR_INVALID_VALUE);
    *ptr = nullptr;
    VA_ENTER_DEVICE(device, scope);
    size_t free_bytes = 0, total_bytes = 0;
    VA_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    // Managed memory past what the GPU has free can hang the device: refuse it.
    if (nbytes > free_bytes)
        return va::record_cuda(cudaErrorMemoryAllocation, __FILE__, __LINE__,
                               static_cast<int64_t>(nbytes));
    cudaError_t err = cudaMallocManaged(ptr, nbytes == 0 ? 1 : nbytes, cudaMemAttachGlobal);
    if (err != cudaSuccess) {
        *ptr = nullptr;
        return va::record_cuda(err, __FILE__, __LINE__, static_cast<int64_t>(nbytes));
    }
    va::g_bytes_in_use += static_cast<int64_t>(nbytes == 0 ? 1 : nbytes);
    va::g_live_allocations += 1;
    return VA_SUCCESS;
}

va_status va_free_managed(int device, void *ptr, size_t nbytes) {
    if (ptr == nullptr) return VA_SUCCESS;
    VA_ENTER_DEVICE(device, scope);
    va::g_bytes_in_use -= static_cast<int64_t>(nbytes == 0 ? 1 : nbytes);
    va::g_live_allocations -= 1;
    // Managed memory is read by the host: the queued work must be done first.
    cudaStream_t stream = nullptr;
    VA_CHECK(va::library_stream(device, &stream));
    VA_CUDA_CHECK(cudaStreamSynchronize(stream));
    VA_CUDA_CHECK(cudaFree(ptr));
    return VA_SUCCESS;
}

va_status va_memory_stats(int64_t *bytes_in_use, int64_t *live_allocations) {
    if (bytes_in_use == nullptr || live_allocations == nullptr) VA_FAIL(VA_ERROR_INVALID_VALUE);
    *bytes_in_use = va::g_bytes_in_use.load();
    *live_allocations = va::g_live_allocations.load();
    return VA_SUCCESS;
}

va_status va_release_cached(void) {
    VA_CHECK(va::usable());
    VA_CHECK(va_synchronize(-1));
    std::lock_guard<std::mutex> lock(va::g_pool_mutex);
    for (int d = 0; d < va::kMaxDevices; ++d)
        if (va::g_pools[d] != nullptr) VA_CUDA_CHECK(cudaMemPoolTrimTo(va::g_pools[d], 0));
    return VA_SUCCESS;
}

va_status va_copy_to_device(int device, void *dst, const void *src, size_t nbytes) {
    if ((dst == nullptr || src == nullptr) && nbytes > 0) VA_FAIL(VA_ERROR_INVALID_VALUE);
    VA_ENTER_DEVICE(device, scope);
    cudaStream_t stream = nullptr;
    VA_CHECK(va::library_stream(device, &stream));
    if (nbytes == 0) return VA_SUCCESS;
    VA_CUDA_CHECK(cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyHostToDevice, stream));
    return VA_SUCCESS;
}

va_status va_copy_to_host(int device, void *dst, const void *src, size_t nbytes) {
    if ((dst == nullptr || src == nullptr) && nbytes > 0) VA_FAIL(VA_ERROR_INVALID_VALUE);
    VA_ENTER_DEVICE(device, scope);
    cudaStream_t stream = nullptr;
    VA_CHECK(va::library_stream(device, &stream));
    if (nbytes > 0)
        VA_CUDA_CHECK(cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyDeviceToHost, stream));
    VA_CUDA_CHECK(cudaStreamSynchronize(stream));
    return VA_SUCCESS;
}

}  // extern "C"
