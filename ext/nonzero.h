/* numpy.nonzero for DeviceArrays (one count pass, one wait for the count, one
 * pass writing the positions), as a function, a DeviceArray method, and the
 * positions of a boolean mask for indexing. */
#ifndef MYMODULE_NONZERO_H
#define MYMODULE_NONZERO_H

#include "common.h"

/* The nonzero elements of `a` on its GPU (waits once, with the GIL released,
 * for their number): when `coords` is not NULL, coords[d] (d < a->ndim) a new
 * int64 DeviceArray of their indices along axis d; when `offsets` is not NULL,
 * *offsets a new int64 DeviceArray of sum_d index_d * weights[d] (a gather's
 * byte offsets). 0, or -1 with an error set and nothing returned. */
int nonzero_device(DeviceArrayObject *a, DeviceArrayObject **coords, const int64_t *weights,
                   DeviceArrayObject **offsets);

/* Adds myModule.nonzero. */
int nonzero_init(PyObject *module);
/* DeviceArray.nonzero: its share of the type. */
TypePart nonzero_type_part(void);

#endif
