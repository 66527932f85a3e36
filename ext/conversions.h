/* DeviceArray as a Python scalar: bool(), int(), float(), operator.index(), item(),
 * with NumPy's rules and messages. Each reads one element from the GPU. */
#ifndef MYMODULE_CONVERSIONS_H
#define MYMODULE_CONVERSIONS_H

#include "common.h"

/* Sets nb_bool, nb_int, nb_float and nb_index (before PyType_Ready). */
void conversions_fill_number(PyNumberMethods *number);
/* complex(d): the one element of a 0-d array as a Python complex. */
PyObject *devicearray_complex(PyObject *op, PyObject *);
/* d.item(*index): NumPy's ndarray.item, one element read back as a Python scalar. */
PyObject *devicearray_item(PyObject *op, PyObject *const *args, Py_ssize_t nargs);

#endif
