// Status texts, per-thread error details, and the process-wide "no device" and
// "sticky fault" states.
#include <atomic>
#include <mutex>

#include "error.cuh"

namespace va {
namespace {

thread_local va_error_info t_last = {0, "", "", "", 0, 0};

// The first sticky fault, kept for every later call: after one, the CUDA context
// is unusable until the process restarts.
std::atomic<int> g_fatal_code{0};
const char *g_fatal_file = "";
int g_fatal_line = 0;

bool is_sticky(cudaError_t err) {
    switch (err) {
        case cudaErrorIllegalAddress:
        case cudaErrorLaunchFailure:
        case cudaErrorIllegalInstruction:
        case cudaErrorMisalignedAddress:
        case cudaErrorInvalidAddressSpace:
        case cudaErrorInvalidPc:
        case cudaErrorHardwareStackError:
        case cudaErrorAssert:
        case cudaErrorLaunchTimeout:
        case cudaErrorECCUncorrectable:
        case cudaErrorContextIsDestroyed:
            return true;
        default:
            return false;
    }
}

bool means_no_device(cudaError_t err) {
    switch (err) {
        case cudaErrorNoDevice:
        case cudaErrorInsufficientDriver:
        case cudaErrorInitializationError:
        case cudaErrorSystemDriverMismatch:
        case cudaErrorCompatNotSupportedOnDevice:
        case cudaErrorDevicesUnavailable:
        case cudaErrorStubLibrary:
        case cudaErrorSystemNotReady:
            return true;
        default:
            return false;
    }
}

void keep(cudaError_t err, const char *file, int line, int64_t bytes) {
    t_last.cuda_code = static_cast<int>(err);
    t_last.name = cudaGetErrorName(err);
    t_last.text = cudaGetErrorString(err);
    t_last.file = file;
    t_last.line = line;
    t_last.bytes = bytes;
}

std::once_flag g_probe_once;
cudaError_t g_probe_error = cudaSuccess;
int g_probe_count = 0;

}  // namespace

va_status record_cuda(cudaError_t err, const char *file, int line, int64_t bytes) {
    cudaGetLastError();  // clear a non-sticky error so the next call starts clean
    keep(err, file, line, bytes);
    if (err == cudaErrorMemoryAllocation) return VA_ERROR_OUT_OF_MEMORY;
    if (is_sticky(err)) {
        int expected = 0;
        if (g_fatal_code.compare_exchange_strong(expected, static_cast<int>(err))) {
            g_fatal_file = file;
            g_fatal_line = line;
        }
        return VA_ERROR_CUDA_FATAL;
    }
    if (means_no_device(err)) return VA_ERROR_NO_DEVICE;
    return VA_ERROR_CUDA;
}

va_status record_status(va_status status, const char *file, int line) {
    t_last.cuda_code = 0;
    t_last.name = "";
    t_last.text = va_status_string(status);
    t_last.file = file;
    t_last.line = line;
    t_last.bytes = 0;
    return status;
}

va_status record_message(va_status status, const char *name, const char *text, const char *file, int line) {
    t_last.cuda_code = 0;
    t_last.name = name;
    t_last.text = text;
    t_last.file = file;
    t_last.line = line;
    t_last.bytes = 0;
    return status;
}

void restore_error(const va_error_info &info) { t_last = info; }

va_status usable() {
    std::call_once(g_probe_once, [] {
        g_probe_error = cudaGetDeviceCount(&g_probe_count);
        if (g_probe_error != cudaSuccess) g_probe_count = 0;
        cudaGetLastError();
    });
    if (g_probe_error != cudaSuccess) {
        keep(g_probe_error, __FILE__, __LINE__, 0);
        return VA_ERROR_NO_DEVICE;
    }
    if (g_probe_count == 0) {
        keep(cudaErrorNoDevice, __FILE__, __LINE__, 0);
        return VA_ERROR_NO_DEVICE;
    }
    int fatal = g_fatal_code.load();
    if (fatal != 0) {
        keep(static_cast<cudaError_t>(fatal), g_fatal_file, g_fatal_line, 0);
        return VA_ERROR_CUDA_FATAL;
    }
    return VA_SUCCESS;
}

int probed_device_count() { return g_probe_count; }

va_status check_device(int device) {
    if (device < 0 || device >= g_probe_count || device >= 64) VA_FAIL(VA_ERROR_INVALID_VALUE);
    return VA_SUCCESS;
}

}  // namespace va

extern "C" {

const char *va_status_string(va_status status) {
    switch (status) {
        case VA_SUCCESS: return "success";
        case VA_ERROR_INVALID_VALUE: return "invalid argument";
        case VA_ERROR_UNSUPPORTED_DTYPE:
            return "unsupported dtype (supported: bool, int8 to int64, uint8 to uint64, float32, float64, where the operation has a loop)";
        case VA_ERROR_NO_DEVICE: return "no usable CUDA GPU or driver";
        case VA_ERROR_OUT_OF_MEMORY: return "out of memory";
        case VA_ERROR_CUDA: return "CUDA call failed";
        case VA_ERROR_CUDA_FATAL:
            return "sticky CUDA fault: the process must be restarted to use the GPU";
        case VA_ERROR_LIBRARY_UNAVAILABLE: return "a library needed by the operation could not be loaded";
        case VA_STATUS_MAX_ENUM: break;
    }
    return "unknown status";
}

void va_last_error(va_error_info *info) {
    if (info != nullptr) *info = va::t_last;
}

size_t va_dtype_size(va_dtype dtype) {
    switch (dtype) {
        case VA_BOOL: case VA_INT8: case VA_UINT8: return 1;
        case VA_INT16: case VA_UINT16: return 2;
        case VA_INT32: case VA_UINT32: case VA_FLOAT32: return 4;
        case VA_INT64: case VA_UINT64: case VA_FLOAT64: case VA_COMPLEX64: return 8;
        case VA_COMPLEX128: return 16;
        case VA_DTYPE_COUNT: case VA_DTYPE_MAX_ENUM: break;
    }
    return 0;
}

}  // extern "C"
