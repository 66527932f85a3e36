// Loading an operation library (module_abi.cuh says what one is): open it,
// read its version and ABI before calling anything in it, hand it the
// library's services, and append its rows to the one table.
#include <dlfcn.h>

#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "error.cuh"
#include "launch.cuh"
#include "memory.cuh"
#include "module_abi.cuh"
#include "runtime.cuh"

namespace va {
namespace {

va_status record_cuda_service(cudaError_t err, const char *file, int line, int64_t bytes) {
    return record_cuda(err, file, line, bytes);
}

const ModuleServices kServices = {
    VA_MODULE_ABI,
    static_cast<int32_t>(sizeof(OpEntry)),
    &record_cuda_service,
    &record_status,
    &overlapped_launches,
    &multiprocessor_count,
    &make_walk,
    &pool_alloc,
    &pool_free,
    &va_dtype_size,
};

// The paths of loaded objects: their rows name them as their origin, so they
// live as long as the rows (the process).
std::mutex g_paths_lock;
std::vector<std::string *> &loaded_paths() {
    static std::vector<std::string *> paths;
    return paths;
}

const char *keep_path(const char *path) {
    std::lock_guard<std::mutex> hold(g_paths_lock);
    loaded_paths().push_back(new std::string(path));
    return loaded_paths().back()->c_str();
}

va_status refuse(va_module_result *result, va_module_problem problem) {
    result->problem = problem;
    VA_FAIL(VA_ERROR_INVALID_VALUE);
}

}  // namespace
}  // namespace va

extern "C" va_status va_module_load(const char *path, const char *version, va_module_result *result) {
    if (path == nullptr || version == nullptr || result == nullptr) VA_FAIL(VA_ERROR_INVALID_VALUE);
    std::memset(result, 0, sizeof(*result));
    result->clash_op = -1;
    result->clash_row = -1;
    // Never closed: the rows point into it, and its runtime's exit handlers too.
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
        const char *why = dlerror();
        std::snprintf(result->detail, sizeof(result->detail), "%s", why != nullptr ? why : "dlopen failed");
        return va::refuse(result, VA_MODULE_CANNOT_OPEN);
    }
    const auto *found_version = static_cast<const char *>(dlsym(handle, VA_MODULE_VERSION_SYMBOL));
    const auto *found_abi = static_cast<const int32_t *>(dlsym(handle, VA_MODULE_ABI_SYMBOL));
    const auto init = reinterpret_cast<va_module_init_fn>(dlsym(handle, VA_MODULE_INIT_SYMBOL));
    if (found_version == nullptr || found_abi == nullptr || init == nullptr)
        return va::refuse(result, VA_MODULE_NOT_A_MODULE);
    if (std::strncmp(found_version, version, 63) != 0 || *found_abi != VA_MODULE_ABI) {
        std::snprintf(result->found_version, sizeof(result->found_version), "%.40s (ABI %d)",
                      found_version, static_cast<int>(*found_abi));
        return va::refuse(result, VA_MODULE_OTHER_VERSION);
    }
    va::ModuleRows rows = {};
    if (init(&va::kServices, &rows) != VA_SUCCESS ||
        rows.entry_size != static_cast<int32_t>(sizeof(va::OpEntry)) || rows.count < 0 ||
        (rows.count > 0 && rows.rows == nullptr))
        return va::refuse(result, VA_MODULE_BAD_ROWS);
    // Operators (PYOP) fill DeviceArray's type slots, which are set once, before
    // any library can load: they belong to the built-in operations.
    for (int32_t k = 0; k < rows.count; ++k) {
        if (rows.rows[k].info.pyop[0] != '\0') {
            std::snprintf(result->detail, sizeof(result->detail),
                          "operation '%.100s' declares the operator %.40s: operators belong to "
                          "built-in operations; declare it with \"\" (a loaded operation is a "
                          "function)", rows.rows[k].info.name, rows.rows[k].info.pyop);
            return va::refuse(result, VA_MODULE_BAD_ROWS);
        }
    }
    return va::append_rows(rows.rows, rows.count, va::keep_path(path), result);
}
