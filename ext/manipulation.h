/* Shapes and types of DeviceArrays: reshape, ravel, flatten, transpose / .T /
 * permute_dims, squeeze, expand_dims, broadcast_to, concatenate, stack, astype,
 * copy, fill. Views wherever NumPy makes one. */
#ifndef MYMODULE_MANIPULATION_H
#define MYMODULE_MANIPULATION_H

#include "views.h"

/* Adds the module functions (reshape, ravel, transpose, permute_dims, squeeze,
 * expand_dims, broadcast_to, concatenate, stack, astype, copy) and DeviceArray's
 * methods (reshape, ravel, flatten, transpose, squeeze, astype, copy, fill, .T). */
int manipulation_init(PyObject *module);

/* The strides that let `self` be viewed with a new shape of the same size
 * without a copy (NumPy's _attempt_nocopy_reshape): 1 and `strides` set, or 0. */
int reshape_strides(int ndim, const int64_t *shape, const int64_t *strides, int64_t itemsize,
                    int new_ndim, const int64_t *new_shape, int64_t *new_strides);

#endif
