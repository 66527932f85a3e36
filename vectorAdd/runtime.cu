// Devices, the library's streams, and stream-to-stream ordering.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include "launch.cuh"
#include "runtime.cuh"

namespace va {
namespace {

// Creation and destruction of the streams take the mutex; finding one that exists
// is a load (every entry point finds its stream, often several times a call).
std::mutex g_stream_mutex;
std::mutex g_marker_mutex;
std::vector<cudaEvent_t> g_free_markers;
std::atomic<cudaStream_t> g_streams[kMaxDevices] = {};
int g_sm_count[kMaxDevices] = {};
// Per device: 0 not read yet, 1 launches serialised, 2 launches may overlap.
std::atomic<int> g_overlap[kMaxDevices] = {};
std::atomic<uint64_t> g_write_epoch{0};

}  // namespace

bool env_flag(const char *name, bool unset) {
    const char *v = std::getenv(name);
    if (v == nullptr || v[0] == '\0') return unset;
    return std::strcmp(v, "0") != 0;
}

long long env_count(const char *name) {
    const char *v = std::getenv(name);
    const long long parsed = (v != nullptr && v[0] != '\0') ? std::strtoll(v, nullptr, 10) : 0;
    return parsed > 0 ? parsed : 0;
}

bool overlapped_launches(int device) {
    if (device < 0 || device >= kMaxDevices) return false;
    int known = g_overlap[device].load(std::memory_order_relaxed);
    if (known == 0) {
        static const bool disabled = env_flag("MYMODULE_NO_OVERLAP");
        int major = 0;
        if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess) {
            cudaGetLastError();
            major = 0;
        }
        known = (!disabled && major >= 9) ? 2 : 1;
        g_overlap[device].store(known, std::memory_order_relaxed);
    }
    return known == 2;
}

uint64_t write_epoch() { return g_write_epoch.load(); }

void move_write_epoch() { g_write_epoch.fetch_add(1); }

va_status library_stream(int device, cudaStream_t *stream) {
    move_write_epoch();
    return quiet_library_stream(device, stream);
}

va_status quiet_library_stream(int device, cudaStream_t *stream) {
    *stream = g_streams[device].load(std::memory_order_acquire);
    if (*stream != nullptr) return VA_SUCCESS;
    std::lock_guard<std::mutex> lock(g_stream_mutex);
    if (g_streams[device].load(std::memory_order_relaxed) == nullptr) {
        DeviceScope scope(device);
        VA_CUDA_CHECK(scope.status());
        cudaStream_t created = nullptr;
        VA_CUDA_CHECK(cudaStreamCreateWithFlags(&created, cudaStreamNonBlocking));
        int sms = 0;
        VA_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
        g_sm_count[device] = sms;
        g_streams[device].store(created, std::memory_order_release);
    }
    *stream = g_streams[device].load(std::memory_order_relaxed);
    return VA_SUCCESS;
}

void shutdown_streams() {
    std::lock_guard<std::mutex> lock(g_stream_mutex);
    for (int d = 0; d < kMaxDevices; ++d) {
        cudaStream_t s = g_streams[d].exchange(nullptr);
        if (s != nullptr) {
            DeviceScope scope(d);
            cudaStreamDestroy(s);
        }
    }
    std::lock_guard<std::mutex> markers(g_marker_mutex);
    for (cudaEvent_t ev : g_free_markers) cudaEventDestroy(ev);
    g_free_markers.clear();
    cudaGetLastError();
}

int multiprocessor_count(int device) {
    int sms = g_sm_count[device];
    return sms > 0 ? sms : 16;
}

}  // namespace va

extern "C" {

va_status va_cuda_available(void) { return va::usable(); }

va_status va_device_count(int *count) {
    if (count == nullptr) VA_FAIL(VA_ERROR_INVALID_VALUE);
    *count = 0;
    va_status st = va::usable();
    if (st == VA_ERROR_NO_DEVICE) return st;
    *count = va::probed_device_count();
    return st;
}

va_status va_device_info_get(int device, va_device_info *info) {
    if (info == nullptr) VA_FAIL(VA_ERROR_INVALID_VALUE);
    VA_ENTER_DEVICE(device, scope);
    cudaDeviceProp prop;
    VA_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    std::memset(info, 0, sizeof(*info));
    std::snprintf(info->name, sizeof(info->name), "%s", prop.name);
    info->major = prop.major;
    info->minor = prop.minor;
    info->multiprocessors = prop.multiProcessorCount;
    info->total_memory = static_cast<int64_t>(prop.totalGlobalMem);
    info->l2_cache_bytes = prop.l2CacheSize;
    info->pci_bus_id = prop.pciBusID;
    info->managed_memory = prop.managedMemory;
    size_t free_bytes = 0, total_bytes = 0;
    VA_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    info->free_memory = static_cast<int64_t>(free_bytes);
    return VA_SUCCESS;
}

// The architectures the library's machine code was built for, as CUDA_ARCH
// spells them ("75 80 90"): what myModule.load builds for when no GPU is present.
const char *va_built_architectures(void) { return VA_BUILT_ARCHS; }

va_status va_versions(int *driver_version, int *runtime_version) {
    if (driver_version == nullptr || runtime_version == nullptr) VA_FAIL(VA_ERROR_INVALID_VALUE);
    *driver_version = 0;
    *runtime_version = 0;
    VA_CUDA_CHECK(cudaRuntimeGetVersion(runtime_version));
    // With no driver this reports 0 and succeeds.
    VA_CUDA_CHECK(cudaDriverGetVersion(driver_version));
    return VA_SUCCESS;
}

va_status va_pointer_device(const void *ptr, int *device, int *is_managed) {
    if (device == nullptr) VA_FAIL(VA_ERROR_INVALID_VALUE);
    VA_CHECK(va::usable());
    cudaPointerAttributes attr;
    VA_CUDA_CHECK(cudaPointerGetAttributes(&attr, ptr));
    if (is_managed != nullptr) *is_managed = (attr.type == cudaMemoryTypeManaged);
    if (attr.type != cudaMemoryTypeDevice && attr.type != cudaMemoryTypeManaged)
        VA_FAIL(VA_ERROR_INVALID_VALUE);
    *device = attr.device;
    return VA_SUCCESS;
}

va_status va_stream(int device, void **stream) {
    if (stream == nullptr) VA_FAIL(VA_ERROR_INVALID_VALUE);
    VA_ENTER_STREAM(device, scope, s);
    *stream = s;
    return VA_SUCCESS;
}

va_status va_synchronize(int device) {
    VA_CHECK(va::usable());
    const int count = va::probed_device_count();
    for (int d = 0; d < count && d < va::kMaxDevices; ++d) {
        if (device >= 0 && d != device) continue;
        cudaStream_t s = va::g_streams[d].load(std::memory_order_acquire);
        if (s != nullptr) VA_CUDA_CHECK(cudaStreamSynchronize(s));
    }
    return VA_SUCCESS;
}

namespace {
// Makes `waiter` wait for what is queued on `producer` so far, with an event.
va_status order_streams(cudaStream_t producer, cudaStream_t waiter) {
    if (producer == waiter) return VA_SUCCESS;
    cudaEvent_t ev = nullptr;
    VA_CUDA_CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
    cudaError_t err = cudaEventRecord(ev, producer);
    if (err == cudaSuccess) err = cudaStreamWaitEvent(waiter, ev, 0);
    cudaEventDestroy(ev);  // released once the wait is satisfied
    VA_CUDA_CHECK(err);
    return VA_SUCCESS;
}
}  // namespace

va_status va_shutdown(void) {
    va_status st = va::usable();
    if (st == VA_ERROR_NO_DEVICE) return VA_SUCCESS;  // nothing was ever made
    if (st == VA_SUCCESS) VA_CHECK(va_synchronize(-1));
    va::shutdown_pipelines();
    va::shutdown_reduce();
    va::shutdown_blas();
    va::shutdown_pinned();
    va::shutdown_mirror();
    va::shutdown_memory();
    va::shutdown_streams();
    return st;
}

va_status va_marker_record(int device, void **marker) {
    if (marker == nullptr) VA_FAIL(VA_ERROR_INVALID_VALUE);
    *marker = nullptr;
    VA_ENTER_STREAM(device, scope, mine);
    cudaEvent_t ev = nullptr;
    {
        std::lock_guard<std::mutex> lock(va::g_marker_mutex);
        if (!va::g_free_markers.empty()) {
            ev = va::g_free_markers.back();
            va::g_free_markers.pop_back();
        }
    }
    if (ev == nullptr) VA_CUDA_CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
    cudaError_t err = cudaEventRecord(ev, mine);
    if (err != cudaSuccess) {
        cudaEventDestroy(ev);
        VA_CUDA_CHECK(err);
    }
    *marker = ev;
    return VA_SUCCESS;
}

int va_marker_done(void *marker) {
    if (marker == nullptr) return 1;
    cudaError_t err = cudaEventQuery(static_cast<cudaEvent_t>(marker));
    if (err == cudaErrorNotReady) {
        cudaGetLastError();
        return 0;
    }
    cudaGetLastError();  // done, or the context is gone: either way nothing will read
    return 1;
}

void va_marker_release(void *marker) {
    if (marker == nullptr) return;
    std::lock_guard<std::mutex> lock(va::g_marker_mutex);
    va::g_free_markers.push_back(static_cast<cudaEvent_t>(marker));
}

va_status va_stream_wait_external(int device, void *stream) {
    VA_ENTER_STREAM(device, scope, mine);
    return order_streams(static_cast<cudaStream_t>(stream), mine);
}

va_status va_external_wait_library(int device, void *stream) {
    VA_ENTER_STREAM(device, scope, mine);
    return order_streams(mine, static_cast<cudaStream_t>(stream));
}

}  // extern "C"
