// The boundary between the library and an operation library built outside it
// (myModule.load, python -m myModule.build): a shared object compiled from
// one-file operations against the headers of myModule.get_include().
//
// Such an object carries its own kernels, launchers and table rows, and a copy
// of the static CUDA runtime (kernels register with the runtime linked beside
// them). What the launchers need from the library itself (error records, the
// memory pool, device properties) reaches them through va_module_services, a
// table of the library's functions handed over once, at load. The object
// exports three symbols and nothing else:
//   va_module_version  the myModule version it was built for (a C string)
//   va_module_abi      VA_MODULE_ABI of the headers it was built with
//   va_module_init_v1  called once: takes the services, gives the rows
// The loader reads the first two before calling anything, so an object built
// for another version is refused (ImportError), never called.
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

#include "layout.cuh"
#include "op_registry.cuh"

// VA_MODULE_ABI (vectorAdd.h) is bumped whenever a struct below, OpEntry or a
// launcher's call struct changes layout (the version check refuses other
// versions anyway; this guards builds of one version from modified headers).

namespace va {

struct ModuleServices {
    int32_t abi;          // VA_MODULE_ABI
    int32_t entry_size;   // sizeof(OpEntry)
    va_status (*record_cuda)(cudaError_t err, const char *file, int line, int64_t bytes);
    va_status (*record_status)(va_status status, const char *file, int line);
    bool (*overlapped_launches)(int device);
    int (*multiprocessor_count)(int device);
    void (*make_walk)(const va_array *const *views, int nviews, Walk *walk);
    va_status (*pool_alloc)(int device, cudaStream_t stream, size_t nbytes, void **ptr);
    void (*pool_free)(int device, cudaStream_t stream, void *ptr, size_t nbytes);
    size_t (*dtype_size)(va_dtype dtype);
};

// What an operation library declares: its rows, in the order of its files.
struct ModuleRows {
    int32_t entry_size;   // sizeof(OpEntry) as the object was compiled
    int32_t count;
    const OpEntry *rows;  // static storage of the object
};

}  // namespace va

extern "C" {
typedef va_status (*va_module_init_fn)(const va::ModuleServices *services, va::ModuleRows *rows);
}

#define VA_MODULE_INIT_SYMBOL "va_module_init_v1"
#define VA_MODULE_VERSION_SYMBOL "va_module_version"
#define VA_MODULE_ABI_SYMBOL "va_module_abi"
