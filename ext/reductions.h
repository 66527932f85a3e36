/* Reductions of the op table, and trace, from Python objects. */
#ifndef MYMODULE_REDUCTIONS_H
#define MYMODULE_REDUCTIONS_H

#include "common.h"

/* Reduction `op` over every element of `a`: NumPy on the CPU, the GPU for device
 * arrays (and for large host arrays when it wins); a NumPy scalar either way. */
PyObject *reduction_objects(va_op op, PyObject *a, Where where);
PyObject *mm_trace(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);

#endif
