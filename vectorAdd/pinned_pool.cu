// Pinned host memory with a cache: cudaHostAlloc costs about as much as copying
// the same bytes, so blocks freed by one call are kept for the next.
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "memory.cuh"

namespace va {
namespace {

constexpr size_t kCacheCap = size_t(4) << 30;  // cached, unused pinned bytes kept at most

std::mutex g_mutex;
std::multimap<size_t, void *> g_free;     // size -> block
std::unordered_map<void *, size_t> g_live; // block -> size
size_t g_cached_bytes = 0;

size_t size_class(size_t nbytes) {
    const size_t granule = nbytes >= (size_t(2) << 20) ? (size_t(2) << 20) : 4096;
    return (nbytes + granule - 1) / granule * granule;
}

bool caching_disabled() { return env_flag("MYMODULE_NO_POOL"); }

void release_all_cached() {
    for (auto &entry : g_free) cudaFreeHost(entry.second);
    g_free.clear();
    g_cached_bytes = 0;
}

}  // namespace

void shutdown_pinned() {
    std::lock_guard<std::mutex> lock(g_mutex);
    release_all_cached();
}

bool host_block_is_pinned(const void *ptr) {
    std::lock_guard<std::mutex> lock(g_mutex);
    return g_live.count(const_cast<void *>(ptr)) != 0;
}

}  // namespace va

extern "C" {

va_status va_host_alloc(size_t nbytes, void **ptr) {
    if (ptr == nullptr) VA_FAIL(VA_ERROR_INVALID_VALUE);
    *ptr = nullptr;
    VA_CHECK(va::usable());
    const size_t size = va::size_class(nbytes == 0 ? 1 : nbytes);
    std::lock_guard<std::mutex> lock(va::g_mutex);
    // A cached block of this size, or up to twice it, serves.
    auto it = va::g_free.lower_bound(size);
    if (it != va::g_free.end() && it->first <= 2 * size) {
        *ptr = it->second;
        va::g_live[it->second] = it->first;
        va::g_cached_bytes -= it->first;
        va::g_free.erase(it);
        return VA_SUCCESS;
    }
    cudaError_t err = cudaHostAlloc(ptr, size, cudaHostAllocPortable | cudaHostAllocMapped);
    if (err == cudaErrorMemoryAllocation) {
        cudaGetLastError();
        va::release_all_cached();
        err = cudaHostAlloc(ptr, size, cudaHostAllocPortable | cudaHostAllocMapped);
    }
    if (err != cudaSuccess) {
        *ptr = nullptr;
        return va::record_cuda(err, __FILE__, __LINE__, static_cast<int64_t>(size));
    }
    va::g_live[*ptr] = size;
    return VA_SUCCESS;
}

va_status va_host_free(void *ptr) {
    if (ptr == nullptr) return VA_SUCCESS;
    // cudaFreeHost waits for the device: what to give back is chosen under the
    // cache's lock and freed after it, so no other thread waits on the lock meanwhile.
    bool uncached = false;
    std::vector<void *> over_cap;
    {
        std::lock_guard<std::mutex> lock(va::g_mutex);
        auto it = va::g_live.find(ptr);
        if (it == va::g_live.end()) VA_FAIL(VA_ERROR_INVALID_VALUE);
        const size_t size = it->second;
        va::g_live.erase(it);
        uncached = va::caching_disabled() || size > va::kCacheCap;
        if (!uncached) {
            va::g_free.emplace(size, ptr);
            va::g_cached_bytes += size;
            // Over the cap: give back the largest cached blocks first.
            while (va::g_cached_bytes > va::kCacheCap && !va::g_free.empty()) {
                auto last = std::prev(va::g_free.end());
                va::g_cached_bytes -= last->first;
                over_cap.push_back(last->second);
                va::g_free.erase(last);
            }
        }
    }
    if (uncached) VA_CUDA_CHECK(cudaFreeHost(ptr));
    for (void *block : over_cap) cudaFreeHost(block);
    return VA_SUCCESS;
}

}  // extern "C"
