// cuBLAS loaded with dlopen on first use: the candidates in order, the functions
// looked up once, a handle a device made when that device first needs one.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "blas.cuh"
#include "error.cuh"
#include "runtime.cuh"

namespace va {
namespace {

std::once_flag g_load_once;
BlasApi g_api;
bool g_loaded = false;
char g_reason[1024] = "";  // why it could not be loaded (static: va_last_error keeps a pointer)

std::mutex g_handle_mutex[kMaxDevices];
cublasHandle_t g_handles[kMaxDevices] = {};

template <typename F>
bool find(void *lib, const char *name, F *fn) {
    *fn = reinterpret_cast<F>(dlsym(lib, name));
    return *fn != nullptr;
}

void load() {
    // The wheel's copy (the package points $MYMODULE_CUBLAS at nvidia-cublas's when it is
    // installed), the loader's search path, then the toolkit's.
    char toolkit[512] = "";
    if (const char *cuda = std::getenv("CUDA_PATH")) std::snprintf(toolkit, sizeof(toolkit), "%s/lib64/libcublas.so.13", cuda);
    const char *candidates[] = {std::getenv("MYMODULE_CUBLAS"), "libcublas.so.13", toolkit,
                                "/usr/local/cuda/lib64/libcublas.so.13"};
    void *lib = nullptr;
    int used = 0;
    for (const char *path : candidates) {
        if (path == nullptr || path[0] == '\0') continue;
        lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (lib != nullptr) break;
        const char *why = dlerror();
        used += std::snprintf(g_reason + used, sizeof(g_reason) - static_cast<size_t>(used), "%s%s",
                              used ? "; " : "", why ? why : path);
        if (used >= static_cast<int>(sizeof(g_reason))) used = sizeof(g_reason) - 1;
    }
    if (lib == nullptr) return;
    if (!find(lib, "cublasCreate_v2", &g_api.create) || !find(lib, "cublasDestroy_v2", &g_api.destroy) ||
        !find(lib, "cublasSetStream_v2", &g_api.set_stream) ||
        !find(lib, "cublasSetMathMode", &g_api.set_math_mode) ||
        !find(lib, "cublasSgemmStridedBatched", &g_api.sgemm_strided_batched) ||
        !find(lib, "cublasDgemmStridedBatched", &g_api.dgemm_strided_batched) ||
        !find(lib, "cublasCgemmStridedBatched", &g_api.cgemm_strided_batched) ||
        !find(lib, "cublasZgemmStridedBatched", &g_api.zgemm_strided_batched)) {
        std::snprintf(g_reason, sizeof(g_reason), "libcublas.so.13 lacks a function: %s", dlerror());
        dlclose(lib);
        return;
    }
    g_loaded = true;  // kept loaded for the life of the process, as the handles are
}

}  // namespace

va_status blas_status(cublasStatus_t status, const char *file, int line) {
    switch (status) {
        case CUBLAS_STATUS_ALLOC_FAILED: return record_message(VA_ERROR_OUT_OF_MEMORY, "CUBLAS_STATUS_ALLOC_FAILED",
                                                               "cuBLAS could not allocate GPU memory", file, line);
        case CUBLAS_STATUS_NOT_INITIALIZED:
            return record_message(VA_ERROR_CUDA, "CUBLAS_STATUS_NOT_INITIALIZED", "cuBLAS could not initialize",
                                  file, line);
        case CUBLAS_STATUS_INVALID_VALUE:
            return record_message(VA_ERROR_INVALID_VALUE, "CUBLAS_STATUS_INVALID_VALUE",
                                  "cuBLAS refused an argument", file, line);
        case CUBLAS_STATUS_EXECUTION_FAILED:
            return record_message(VA_ERROR_CUDA, "CUBLAS_STATUS_EXECUTION_FAILED", "a cuBLAS kernel failed", file,
                                  line);
        case CUBLAS_STATUS_SUCCESS: case CUBLAS_STATUS_ARCH_MISMATCH: case CUBLAS_STATUS_MAPPING_ERROR:
        case CUBLAS_STATUS_INTERNAL_ERROR: case CUBLAS_STATUS_NOT_SUPPORTED: case CUBLAS_STATUS_LICENSE_ERROR:
            break;
    }
    return record_message(VA_ERROR_CUDA, "cublasStatus_t", "cuBLAS call failed", file, line);
}

va_status blas_handle(int device, cudaStream_t stream, BlasHandle *out) {
    std::call_once(g_load_once, load);
    if (!g_loaded)
        return record_message(VA_ERROR_LIBRARY_UNAVAILABLE, "libcublas.so.13", g_reason, __FILE__, __LINE__);
    std::unique_lock<std::mutex> lock(g_handle_mutex[device]);
    if (g_handles[device] == nullptr) {
        cublasHandle_t h = nullptr;
        VA_BLAS_CHECK(g_api.create(&h));
        // The inputs' own precision: no TF32 for float32 (NumPy's results, as PyTorch's default).
        const cublasStatus_t st = g_api.set_math_mode(h, CUBLAS_DEFAULT_MATH);
        if (st != CUBLAS_STATUS_SUCCESS) {
            g_api.destroy(h);
            return blas_status(st, __FILE__, __LINE__);
        }
        g_handles[device] = h;
    }
    VA_BLAS_CHECK(g_api.set_stream(g_handles[device], stream));
    out->api = &g_api;
    out->handle = g_handles[device];
    out->lock = std::move(lock);
    return VA_SUCCESS;
}

void shutdown_blas() {
    if (!g_loaded) return;
    for (int d = 0; d < kMaxDevices; ++d) {
        std::lock_guard<std::mutex> lock(g_handle_mutex[d]);
        if (g_handles[d] == nullptr) continue;
        DeviceScope scope(d);
        g_api.destroy(g_handles[d]);
        g_handles[d] = nullptr;
    }
}

}  // namespace va
