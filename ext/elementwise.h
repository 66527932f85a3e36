/* Elementwise operations of the op table from Python objects: where the work
 * runs (NumPy on the CPU, the GPU for host data, the GPU for device data). */
#ifndef MYMODULE_ELEMENTWISE_H
#define MYMODULE_ELEMENTWISE_H

#include "common.h"

/* Elementwise op `op` on args[0 .. nparams + nin): its scalars, then its arrays.
 * out: NULL or None for a new array. */
PyObject *elementwise_objects(va_op op, PyObject *const *args, PyObject *out, Where where);

/* The compute and result dtypes of `op` on args (as elementwise_objects takes
 * them): 0, or -1 with TypeError as the call would raise. */
int elementwise_dtypes(va_op op, PyObject *const *args, va_dtype *compute, va_dtype *result);

/* TypeError for dtypes `op` has no loop for, worded as NumPy's. */
PyObject *raise_no_loop(va_op op, int nargs, const va_dtype *dtypes, const va_weak *weak);

#endif
