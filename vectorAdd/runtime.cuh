// Per-device state of the library: its stream, the device's properties, and a
// guard that makes a device current for a scope.
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

#include "error.cuh"

namespace va {

constexpr int kMaxDevices = 64;

// Makes `device` current for the scope and restores the previous one after.
class DeviceScope {
public:
    explicit DeviceScope(int device) {
        // With one GPU visible, device 0 is every thread's current device: asking costs
        // 0.1 us of each small call (bench/NOTES.md, session 35) and changes nothing.
        if (device == 0 && probed_device_count() == 1) return;
        if (cudaGetDevice(&previous_) != cudaSuccess) previous_ = -1;
        if (previous_ == device) return;  // nothing to set, nothing to restore
        status_ = cudaSetDevice(device);
        restore_ = previous_ >= 0 && status_ == cudaSuccess;
    }
    ~DeviceScope() {
        if (restore_) cudaSetDevice(previous_);
    }
    DeviceScope(const DeviceScope &) = delete;
    DeviceScope &operator=(const DeviceScope &) = delete;
    cudaError_t status() const { return status_; }

private:
    int previous_ = -1;
    cudaError_t status_ = cudaSuccess;
    bool restore_ = false;
};

// Checks that the library can run on `device` and makes it current: the
// preamble of every entry point that touches a GPU.
#define VA_ENTER_DEVICE(device, scope_name)                                 \
    VA_CHECK(::va::usable());                                               \
    VA_CHECK(::va::check_device(device));                                   \
    ::va::DeviceScope scope_name(device);                                   \
    VA_CUDA_CHECK(scope_name.status())

// VA_ENTER_DEVICE, then the library's stream of that device as `stream_name`.
#define VA_ENTER_STREAM(device, scope_name, stream_name)                    \
    VA_ENTER_DEVICE(device, scope_name);                                    \
    cudaStream_t stream_name = nullptr;                                     \
    VA_CHECK(::va::library_stream(device, &stream_name))

// VA_ENTER_STREAM for an entry point that writes no device memory anyone can
// read (quiet_library_stream): the write epoch stays.
#define VA_ENTER_QUIET_STREAM(device, scope_name, stream_name)              \
    VA_ENTER_DEVICE(device, scope_name);                                    \
    cudaStream_t stream_name = nullptr;                                     \
    VA_CHECK(::va::quiet_library_stream(device, &stream_name))

// The library's non-blocking stream on `device`, created on first use. Each call
// moves the write epoch: the caller may be about to write device memory.
va_status library_stream(int device, cudaStream_t *stream);
// The same stream for a caller that writes no device memory anyone can read
// (a copy to the host, an allocation, a free): the write epoch stays.
va_status quiet_library_stream(int device, cudaStream_t *stream);

// A count that moves before anything can write device memory through the
// library (library_stream) and when an address leaves it (an export, whose
// owner may write there unseen): bytes read at one epoch are unchanged while it
// stays the same (scalar_mirror.cuh relies on it).
uint64_t write_epoch();
void move_write_epoch();

// Releases of what each part of the library keeps, for va_shutdown (all work
// is finished when they run).
void shutdown_streams();
void shutdown_memory();
void shutdown_pinned();
void shutdown_mirror();  // before shutdown_memory frees its slot
void shutdown_reduce();
void shutdown_pipelines();
void shutdown_blas();

// True when the environment variable `name` is set to something other than ""
// or "0" (the switches MYMODULE_NO_POOL and MYMODULE_NO_OVERLAP); `unset` where it
// is unset or empty (a switch that is on by default, as MYMODULE_PERSISTENT_WORKERS).
bool env_flag(const char *name, bool unset = false);
// The positive integer the environment variable `name` holds, or 0 where it is
// unset, empty, not a number or not positive (the pipeline's counts and sizes).
long long env_count(const char *name);

// Multiprocessor count of `device`, read once.
int multiprocessor_count(int device);

// How many blocks of `threads` threads of Kernel fit on one multiprocessor, read
// once per kernel (the GPUs of one process are assumed alike).
template <auto Kernel>
int resident_blocks(int threads) {
    static const int per_sm = [threads] {
        int blocks = 0;
        if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, Kernel, threads, 0) != cudaSuccess ||
            blocks < 1) {
            cudaGetLastError();
            blocks = 1;
        }
        return blocks;
    }();
    return per_sm;
}

}  // namespace va
