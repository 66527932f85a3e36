/* The array functions and methods of DeviceArray (creation, indexing,
 * manipulation), registered in one call from PyInit. */
#ifndef MYMODULE_ARRAYS_H
#define MYMODULE_ARRAYS_H

#include "common.h"

/* Adds the functions to `module` and the methods to DeviceArray (after
 * devicearray_init). */
int arrays_init(PyObject *module);

#endif
