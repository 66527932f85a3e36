/* Creating DeviceArrays on a GPU: empty, zeros, ones, full, arange, linspace,
 * eye, the *_like forms and asarray(x, dtype=, device=). */
#ifndef MYMODULE_CREATION_H
#define MYMODULE_CREATION_H

#include "views.h"

/* Adds the creation functions to the module (asarray replaces the one-argument
 * form of myModule.c). */
int creation_init(PyObject *module);

/* A new array of `dtype` holding `array`'s values on `device` (a copy, queued). */
DeviceArrayObject *devicearray_astype(DeviceArrayObject *array, va_dtype dtype, int device);

/* An array-like as a host NumPy array of a supported dtype (cast to `dtype` when
 * given): a new reference, no GPU call. */
PyArrayObject *host_array_like(PyObject *obj, const va_dtype *dtype);

#endif
