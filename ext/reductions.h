/* Reductions of the op table (sum, prod, max, min, mean, ...), as functions and
 * DeviceArray methods, and trace, from Python objects. */
#ifndef MYMODULE_REDUCTIONS_H
#define MYMODULE_REDUCTIONS_H

#include "common.h"

/* NumPy's keywords of a reduction, parsed. */
typedef struct {
    PyObject *axis;    /* borrowed; NULL or None: every axis */
    int dtype_given;
    va_dtype dtype;
    PyObject *out;     /* borrowed; NULL or None: a new array */
    int keepdims;
} ReduceOptions;

/* Reduction `op` called as NumPy's function (self NULL: args[0] is the array)
 * or as a method of `self`: host data gives NumPy's own result, data on a GPU a
 * DeviceArray queued without a wait. */
PyObject *reduction_call(va_op op, PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                         PyObject *kwnames);
/* The same over every element with default keywords (the C callers' form). */
PyObject *reduction_objects(va_op op, PyObject *a, Where where);
/* reduce_device.cpp: the GPU side for data already there. */
PyObject *reduce_device_array(va_op op, DeviceArrayObject *a, const ReduceOptions *options);
/* The dtype NumPy's sum/prod/mean computes in when given out= of dtype `out`
 * and no dtype=: its reduction takes the loop of the input's and out='s dtypes
 * promoted (np.prod(int32, out=float32) multiplies in float64, not in int64
 * wrapped), or VA_DTYPE_COUNT where that is the natural loop. */
va_dtype reduction_dtype_for_out(va_op op, va_dtype in, va_dtype out);
/* The docstring of a reduction's function (malloc'ed; NULL when out of memory). */
char *reduction_doc(const va_op_info *info);
/* Each reduction of the op table as a DeviceArray method (built at the first
 * call, after the op table): their share of the type. `ok` is 0 when out of
 * memory (an exception is set). */
TypePart reductions_type_part(int *ok);

PyObject *mm_trace(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);

#endif
