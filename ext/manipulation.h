/* Shapes and types of DeviceArrays: reshape, ravel, flatten, transpose / .T /
 * permute_dims, broadcast_to, concatenate, stack, astype, copy, fill, and the
 * implementations of the view-making array functions of array_functions.def
 * (squeeze, expand_dims, swapaxes, moveaxis). Views wherever NumPy makes one. */
#ifndef MYMODULE_MANIPULATION_H
#define MYMODULE_MANIPULATION_H

#include "views.h"

/* Adds the module functions (reshape, ravel, transpose, permute_dims,
 * broadcast_to, concatenate, stack, astype, copy). */
int manipulation_init(PyObject *module);
/* DeviceArray's methods (reshape, ravel, flatten, transpose, astype, copy, fill)
 * and attributes (.T): their share of the type. */
TypePart manipulation_type_part(void);

/* One step of a module function on its array (a view made, or refused); `trial`
 * is 1 on host data's placeholder (below). */
typedef PyObject *(*ArrayStep)(DeviceArrayObject *a, void *context, int trial);

/* A module function's step on its array argument, with argument errors before
 * the device check (../shared/SPEC.md): DeviceArrays as they are, other GPU
 * arrays as views; host data is tried first on a placeholder of its shape (its
 * own host pointer, never read: the steps only make views), so a bad axis or
 * shape raises NumPy's error on a machine without a GPU; then it is uploaded
 * and the step runs for real. */
PyObject *on_gpu_operand(PyObject *obj, const char *what, ArrayStep step, void *context);

/* The strides that let `self` be viewed with a new shape of the same size
 * without a copy (NumPy's _attempt_nocopy_reshape): 1 and `strides` set, or 0. */
int reshape_strides(int ndim, const int64_t *shape, const int64_t *strides, int64_t itemsize,
                    int new_ndim, const int64_t *new_shape, int64_t *new_strides);

#endif
