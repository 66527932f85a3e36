/* Users' own kernels (user_ops/, VA_RAW_KERNEL) from Python objects. */
#ifndef MYMODULE_RAW_H
#define MYMODULE_RAW_H

#include "common.h"

/* Raw kernel `op` on args[0 .. nparams + nin) (its scalars, then its arrays):
 * arrays converted to the kernel's dtype (same_kind casting) and moved to the
 * GPU that holds the device inputs (GPU 0 for host data); the output has the
 * first array's shape unless `out` is given. A DeviceArray when any array was
 * on a GPU, else a NumPy array. grid, block: None or ints (launch shape). */
PyObject *raw_objects(va_op op, PyObject *const *args, PyObject *out, PyObject *grid, PyObject *block);

#endif
