// The one translation unit of an operation library that is not an operation
// (myModule.load and python -m myModule.build compile it beside the user's
// files, with VA_MODULE_VERSION set to the version of the myModule building it;
// the library's own build skips it). It collects the rows the files' static
// initialisers hand in, forwards what the launchers call in the library to the
// services the library hands over at load, and exports the three symbols of
// module_abi.cuh, the only ones the object exports.
#ifndef VA_MODULE
#error "module_main.cu is compiled into operation libraries only (VA_MODULE)"
#endif
#ifndef VA_MODULE_VERSION
#error "VA_MODULE_VERSION: the myModule version the object is built for"
#endif

#include <vector>

#include "error.cuh"
#include "launch.cuh"
#include "memory.cuh"
#include "module_abi.cuh"
#include "runtime.cuh"

#define VA_MODULE_EXPORT extern "C" __attribute__((visibility("default")))

namespace va {
namespace {

const ModuleServices *services = nullptr;

std::vector<OpEntry> &rows() {
    static std::vector<OpEntry> list;
    return list;
}

}  // namespace

int add_module_row(const OpEntry &row) {
    rows().push_back(row);
    return static_cast<int>(rows().size());
}

// What the launchers of the headers call in the library. They run only after
// va_module_init_v1 set the services: the library calls a launcher only
// through a row it received from there.
va_status record_cuda(cudaError_t err, const char *file, int line, int64_t bytes) {
    return services->record_cuda(err, file, line, bytes);
}
va_status record_status(va_status status, const char *file, int line) {
    return services->record_status(status, file, line);
}
bool overlapped_launches(int device) { return services->overlapped_launches(device); }
int multiprocessor_count(int device) { return services->multiprocessor_count(device); }
void make_walk(const va_array *const *views, int nviews, Walk *walk) {
    services->make_walk(views, nviews, walk);
}
va_status pool_alloc(int device, cudaStream_t stream, size_t nbytes, void **ptr) {
    return services->pool_alloc(device, stream, nbytes, ptr);
}
void pool_free(int device, cudaStream_t stream, void *ptr, size_t nbytes) {
    services->pool_free(device, stream, ptr, nbytes);
}

}  // namespace va

extern "C" size_t va_dtype_size(va_dtype dtype) { return va::services->dtype_size(dtype); }

VA_MODULE_EXPORT const char va_module_version[] = VA_MODULE_VERSION;
VA_MODULE_EXPORT const int32_t va_module_abi = VA_MODULE_ABI;

VA_MODULE_EXPORT va_status va_module_init_v1(const va::ModuleServices *services, va::ModuleRows *out) {
    if (services == nullptr || out == nullptr || services->abi != VA_MODULE_ABI ||
        services->entry_size != static_cast<int32_t>(sizeof(va::OpEntry)))
        return VA_ERROR_INVALID_VALUE;
    va::services = services;
    out->entry_size = static_cast<int32_t>(sizeof(va::OpEntry));
    out->count = static_cast<int32_t>(va::rows().size());
    out->rows = va::rows().data();
    return VA_SUCCESS;
}
