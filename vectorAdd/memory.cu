// The library's allocator: a stream-ordered pool per device (cudaMallocAsync on a
// pool of our own, so other libraries' pools are untouched), with a retry after
// releasing the cache when memory runs out. MYMODULE_NO_POOL=1 turns the caching
// off, for the memory checkers: the pool keeps nothing past a synchronisation
// and the host-side cache of small blocks is unused, so every array is its own
// allocation, unmapped soon after it is freed. Allocation and free stay stream
// ordered: cudaFree would synchronise the device from whatever thread drops the
// last reference to an array (with the GIL held), and under memcheck that froze
// threaded Dask runs with every thread waiting.
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <utility>
#include <vector>

#include "memory.cuh"
#include "small_block_cache.cuh"

namespace va {
namespace {

std::atomic<int64_t> g_bytes_in_use{0};
std::atomic<int64_t> g_live_allocations{0};

std::mutex g_pool_mutex;
cudaMemPool_t g_pools[kMaxDevices] = {};

bool pool_disabled() {
    static const bool disabled = env_flag("MYMODULE_NO_POOL");
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
        // Keep freed blocks cached, caching off aside: releasing them at every
        // synchronisation would make each call pay for the driver's allocation again.
        uint64_t keep = pool_disabled() ? 0 : UINT64_MAX;
        VA_CUDA_CHECK(cudaMemPoolSetAttribute(created, cudaMemPoolAttrReleaseThreshold, &keep));
        g_pools[device] = created;
    }
    *pool = g_pools[device];
    return VA_SUCCESS;
}

// Blocks up to 64 MiB are also kept on the host side, per device and size class, and
// handed out again without a call into the runtime: a block freed after work
// queued on the device's library stream is safe to reuse for work queued there
// later. Only that stream's blocks are kept and handed out (served_by_cache): the
// host pipeline's workers queue on streams of their own, and a block one worker
// freed while its kernel still read it, handed to another worker, was overwritten
// under it (a complex multiply of a float32 host input, whose conversion buffer
// is such a block, returned another chunk's values for two chunks; session 29).
// Blocks freed on any other stream go back to the pool, whose reuse follows the
// streams' order. Every small block is rounded up to its class, wherever it is
// allocated, so that any block the cache holds fills its class.
constexpr size_t kSmallBlock = size_t(64) << 20;
constexpr size_t kSmallCacheCap = size_t(1) << 30;
constexpr size_t kSmallCacheBlocks = 4096;
// Found by class (one list of every class, searched from its end, took 2.9 us a search
// on a 2-core host when 4096 blocks of other classes filled it), and when full, the
// oldest block gives way (small_block_cache.cuh; session 37).
struct DeviceSmallCache : SmallBlockCache {
    DeviceSmallCache() : SmallBlockCache(kSmallCacheCap, kSmallCacheBlocks) {}
};
std::mutex g_small_mutex;
DeviceSmallCache g_small[kMaxDevices];

size_t small_class(size_t nbytes) {
    const size_t granule = nbytes > (size_t(1) << 20) ? (size_t(64) << 10) : 512;
    return (nbytes + granule - 1) / granule * granule;
}

void *take_small(int device, size_t size) {
    std::lock_guard<std::mutex> lock(g_small_mutex);
    return g_small[device].take(size);
}

// Blocks pushed out go back to the pool on `stream`, the library's, where every
// cached block was freed (served_by_cache).
bool keep_small(int device, cudaStream_t stream, size_t size, void *ptr) {
    std::lock_guard<std::mutex> lock(g_small_mutex);
    return g_small[device].keep(size, ptr, [stream](void *out) {
        cudaFreeAsync(out, stream);
        cudaGetLastError();  // a failed free (after a sticky fault) must not leak into the next call
    });
}

// Whether the host-side cache may keep or hand out a block used on `stream`.
bool served_by_cache(int device, cudaStream_t stream) {
    cudaStream_t own = nullptr;
    return quiet_library_stream(device, &own) == VA_SUCCESS && own == stream;
}

}  // namespace

// Hands the host-side cache of small blocks back to the pool (stream-ordered).
void release_small_blocks(int device, cudaStream_t stream) {
    std::lock_guard<std::mutex> lock(g_small_mutex);
    g_small[device].clear([stream](void *out) { cudaFreeAsync(out, stream); });
    cudaGetLastError();
}

va_status pool_alloc(int device, cudaStream_t stream, size_t nbytes, void **ptr) {
    *ptr = nullptr;
    if (nbytes == 0) nbytes = 1;  // a valid, unique pointer for empty arrays
    const size_t request = nbytes;  // what the counters and pool_free see
    const bool small = nbytes <= kSmallBlock && !pool_disabled();
    if (small) {
        *ptr = served_by_cache(device, stream) ? take_small(device, small_class(nbytes)) : nullptr;
        if (*ptr != nullptr) {
            g_bytes_in_use += static_cast<int64_t>(request);
            g_live_allocations += 1;
            return VA_SUCCESS;
        }
        nbytes = small_class(nbytes);
    }
    cudaMemPool_t pool = nullptr;
    VA_CHECK(device_pool(device, &pool));
    cudaError_t err = cudaMallocFromPoolAsync(ptr, nbytes, pool, stream);
    if (err == cudaErrorMemoryAllocation) {
        // Give every cached block back to the driver, then try once more.
        cudaGetLastError();
        release_small_blocks(device, stream);
        cudaStreamSynchronize(stream);
        cudaMemPoolTrimTo(pool, 0);
        err = cudaMallocFromPoolAsync(ptr, nbytes, pool, stream);
    }
    if (err != cudaSuccess) {
        *ptr = nullptr;
        return record_cuda(err, __FILE__, __LINE__, static_cast<int64_t>(request));
    }
    g_bytes_in_use += static_cast<int64_t>(request);
    g_live_allocations += 1;
    return VA_SUCCESS;
}

void pool_free(int device, cudaStream_t stream, void *ptr, size_t nbytes) {
    if (ptr == nullptr) return;
    if (nbytes == 0) nbytes = 1;
    const bool small = nbytes <= kSmallBlock && !pool_disabled();
    if (small) {
        g_bytes_in_use -= static_cast<int64_t>(nbytes);
        g_live_allocations -= 1;
        if (served_by_cache(device, stream) && keep_small(device, stream, small_class(nbytes), ptr)) return;
        cudaFreeAsync(ptr, stream);
        cudaGetLastError();
        return;
    }
    cudaFreeAsync(ptr, stream);
    cudaGetLastError();  // a failed free (after a sticky fault) must not leak into the next call
    g_bytes_in_use -= static_cast<int64_t>(nbytes);
    g_live_allocations -= 1;
}

// ---- pinned slots: a free list of small pieces of pinned pages ----
namespace {
std::mutex g_slot_mutex;
std::vector<std::pair<void *, void *>> g_free_slots;  // host address, device address
constexpr size_t kSlotPage = 64 * 1024;
}  // namespace

std::vector<void *> g_slot_pages;

va_status PinnedSlot::acquire() {
    std::lock_guard<std::mutex> lock(g_slot_mutex);
    if (g_free_slots.empty()) {
        void *page = nullptr;
        cudaError_t err = cudaHostAlloc(&page, kSlotPage, cudaHostAllocMapped | cudaHostAllocPortable);
        if (err != cudaSuccess)
            return record_cuda(err, __FILE__, __LINE__, static_cast<int64_t>(kSlotPage));
        void *mapped = nullptr;
        err = cudaHostGetDevicePointer(&mapped, page, 0);
        if (err != cudaSuccess) {
            cudaFreeHost(page);
            return record_cuda(err, __FILE__, __LINE__);
        }
        g_slot_pages.push_back(page);
        for (size_t off = 0; off < kSlotPage; off += PinnedSlot::kBytes)
            g_free_slots.emplace_back(static_cast<char *>(page) + off, static_cast<char *>(mapped) + off);
    }
    slot_ = g_free_slots.back().first;
    mapped_ = g_free_slots.back().second;
    g_free_slots.pop_back();
    return VA_SUCCESS;
}

PinnedSlot::~PinnedSlot() {
    if (slot_ == nullptr) return;
    std::lock_guard<std::mutex> lock(g_slot_mutex);
    g_free_slots.emplace_back(slot_, mapped_);
}

void shutdown_memory() {
    for (int d = 0; d < kMaxDevices; ++d) {
        if (g_pools[d] == nullptr) continue;
        DeviceScope scope(d);
        cudaStream_t stream = nullptr;
        if (library_stream(d, &stream) == VA_SUCCESS) {
            release_small_blocks(d, stream);
            cudaStreamSynchronize(stream);
        }
        cudaMemPoolDestroy(g_pools[d]);
        g_pools[d] = nullptr;
    }
    std::lock_guard<std::mutex> lock(g_slot_mutex);
    for (void *page : g_slot_pages) cudaFreeHost(page);
    g_slot_pages.clear();
    g_free_slots.clear();
    cudaGetLastError();
}

}  // namespace va

extern "C" {

va_status va_malloc(int device, size_t nbytes, void **ptr) {
    if (ptr == nullptr) VA_FAIL(VA_ERROR_INVALID_VALUE);
    *ptr = nullptr;
    VA_ENTER_QUIET_STREAM(device, scope, stream);
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
    VA_ENTER_QUIET_STREAM(device, scope, stream);
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
    for (int d = 0; d < va::kMaxDevices; ++d) {
        if (va::g_pools[d] == nullptr) continue;
        cudaStream_t stream = nullptr;
        VA_CHECK(va::library_stream(d, &stream));
        va::release_small_blocks(d, stream);
        VA_CUDA_CHECK(cudaStreamSynchronize(stream));
        VA_CUDA_CHECK(cudaMemPoolTrimTo(va::g_pools[d], 0));
    }
    return VA_SUCCESS;
}

}  // extern "C"
