/* The DLPack ABI (https://dmlc.github.io/dlpack/latest/c_api.html): the struct
 * layouts and constants the protocol fixes, written out here so that no
 * third-party header is needed. */
#ifndef MYMODULE_DLPACK_ABI_H
#define MYMODULE_DLPACK_ABI_H

#include <stdint.h>

enum { DLPACK_DEVICE_CPU = 1, DLPACK_DEVICE_CUDA = 2, DLPACK_DEVICE_CUDA_HOST = 3,
       DLPACK_DEVICE_CUDA_MANAGED = 13 };
enum { DLPACK_CODE_INT = 0, DLPACK_CODE_UINT = 1, DLPACK_CODE_FLOAT = 2, DLPACK_CODE_COMPLEX = 5, DLPACK_CODE_BOOL = 6 };
#define DLPACK_FLAG_READ_ONLY (UINT64_C(1) << 0)
#define DLPACK_FLAG_IS_COPIED (UINT64_C(1) << 1)
#define DLPACK_FLAG_IS_SUBBYTE_TYPE_PADDED (UINT64_C(1) << 2)

typedef struct { uint32_t major; uint32_t minor; } DLPackVersionABI;
typedef struct { int32_t device_type; int32_t device_id; } DLDeviceABI;
typedef struct { uint8_t code; uint8_t bits; uint16_t lanes; } DLDataTypeABI;

typedef struct {
    void *data;
    DLDeviceABI device;
    int32_t ndim;
    DLDataTypeABI dtype;
    int64_t *shape;
    int64_t *strides; /* in elements; NULL means C-contiguous */
    uint64_t byte_offset;
} DLTensorABI;

typedef struct DLManagedTensorABI {
    DLTensorABI dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensorABI *self);
} DLManagedTensorABI;

typedef struct DLManagedTensorVersionedABI {
    DLPackVersionABI version;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensorVersionedABI *self);
    uint64_t flags;
    DLTensorABI dl_tensor;
} DLManagedTensorVersionedABI;

#endif
