/* The variance of every element of a DeviceArray in one pass on its GPU (va_var),
 * for the array API's var and std. */
#ifndef MYMODULE_MOMENTS_H
#define MYMODULE_MOMENTS_H

#include "common.h"

/* Adds _core._var_all. */
int moments_init(PyObject *module);

#endif
