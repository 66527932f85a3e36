/* Lazy collections (Dask arrays) as arguments of the op-table functions: such
 * a call is not computed here but handed to myModule.dask, which builds the
 * lazy graph. The checks cost nothing for NumPy arrays, DeviceArrays and
 * Python scalars, and little more than a dictionary lookup for anything else
 * while Dask has not been imported. */
#ifndef MYMODULE_DEFERRED_H
#define MYMODULE_DEFERRED_H

#include "common.h"

/* 1 when `obj` is a Dask collection (its type has __dask_graph__), else 0;
 * never raises. */
int deferred_is_collection(PyObject *obj);
/* 1 when any positional or keyword value of a vectorcall is a Dask collection. */
int deferred_any(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
/* myModule.dask._dispatch(name, *args, **kwargs): the lazy result, or NULL
 * with an exception set. */
PyObject *deferred_call(const char *name, PyObject *const *args, Py_ssize_t nargs,
                        PyObject *kwnames);

#endif
