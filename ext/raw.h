/* Users' own kernels (user_ops/, VA_RAW_KERNEL) from Python objects. */
#ifndef MYMODULE_RAW_H
#define MYMODULE_RAW_H

#include "common.h"

/* The keywords of a user kernel's call after its own arguments, in order. */
typedef struct {
    PyObject *out, *grid, *block, *shared_mem, *shape, *dtype;
} RawOptions;
#define RAW_OPTION_NAMES "out", "grid", "block", "shared_mem", "shape", "dtype"
#define RAW_OPTION_COUNT 6

/* Raw kernel `op` on args[0 .. nparams + nin) (its scalars, then its arrays):
 * arrays converted to the kernel's compute dtype (its one dtype, or NumPy's
 * promotion of them for a typed kernel; same_kind casting) and moved to the GPU
 * that holds the device inputs (GPU 0 for host data); the output has shape=
 * (default: the first array's shape) and dtype= (default: the compute dtype),
 * or is out=. A DeviceArray when any array was on a GPU, else a NumPy array.
 * grid, block: None, an int or a tuple of up to 3 ints; shared_mem: bytes. */
PyObject *raw_objects(va_op op, PyObject *const *args, const RawOptions *options);

#endif
