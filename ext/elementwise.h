/* Elementwise operations of the op table from Python objects: where the work
 * runs (NumPy on the CPU, the GPU for host data, the GPU for device data). */
#ifndef MYMODULE_ELEMENTWISE_H
#define MYMODULE_ELEMENTWISE_H

#include "common.h"

/* Elementwise op `op` on args[0 .. nparams + nin): its scalars, then its arrays.
 * out: NULL or None for a new array. */
PyObject *elementwise_objects(va_op op, PyObject *const *args, PyObject *out, Where where);

/* op(x, y, ...) with every argument exactly a DeviceArray, positional, all of one
 * shape on one GPU, and no scalar parameter: the commonest call, decided without the
 * general parsing (there is nothing to look up, import, defer, convert or broadcast)
 * to the plan elementwise_objects makes for it. 0 where the call is not of that form
 * (nothing done); 1 where it is, with *result the result or NULL with the exception
 * set. */
int elementwise_of_device_arrays(va_op op, PyObject *const *args, Py_ssize_t nargs, PyObject **result);

/* The compute and result dtypes of `op` on args (as elementwise_objects takes
 * them): 0, or -1 with TypeError as the call would raise. */
int elementwise_dtypes(va_op op, PyObject *const *args, va_dtype *compute, va_dtype *result);

/* TypeError for dtypes `op` has no loop for, worded as NumPy's. */
PyObject *raise_no_loop(va_op op, int nargs, const va_dtype *dtypes, const va_weak *weak);

#endif
